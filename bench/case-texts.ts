/**
 * Personal-injury files of our own making for `npm run eval:cases`: incident and police reports,
 * emergency-room records, a specialist's and a therapist's notes, as a small firm's injury cases
 * hold them. Invented people and places; written as plain text so the eval ingests them fast.
 */
export const INJURY_CASES: Record<string, Record<string, string>> = {
  'Miller v. Northside Logistics': {
    'incident-report.txt': `NORTHSIDE LOGISTICS, INC.
WAREHOUSE INCIDENT REPORT

Date of incident: March 14, 2023
Location: Distribution Center 3, Aisle 7, Dayton, Ohio
Employee: John Miller, order picker

Description. On March 14, 2023 at about 2:15 p.m. John Miller was walking along Aisle 7 when he slipped on hydraulic fluid that had leaked from a forklift parked at the end of the aisle. John Miller fell onto his right knee on the concrete floor. Shift supervisor Dana Reyes saw the fall and called for first aid.

Cause. The forklift, unit FL-22, had a cracked hydraulic hose. Maintenance had been asked to repair the hose on March 10, 2023 and had not done so. No warning cone or absorbent was placed on the spill.

Witnesses. Dana Reyes (supervisor); Luis Ortega (forklift operator).

Report prepared by Dana Reyes on March 15, 2023.`,
    'er-record.txt': `MERCY GENERAL HOSPITAL — EMERGENCY DEPARTMENT RECORD

Patient: John Miller   DOB: 04/02/1978
Date of visit: March 14, 2023

Chief complaint: right knee pain after a slip and fall at work.
History: Patient John Miller states he slipped on a wet floor in a warehouse and landed on his right knee. Unable to bear full weight.
Examination: swelling of the right knee, tenderness along the medial joint line, limited flexion.
Imaging: X-ray of the right knee on March 14, 2023 shows no fracture.
Assessment: right knee sprain; suspected medial meniscus tear.
Plan: knee immobilizer, crutches, ibuprofen. Follow up with orthopedics within one week.
Attending physician: Dr. Helen Carter.`,
    'orthopedic-notes.txt': `LAKESIDE ORTHOPEDICS — PROGRESS NOTES
Patient: John Miller

March 21, 2023. John Miller seen by Dr. Anita Patel for right knee pain after a fall at work on March 14, 2023. McMurray test positive. MRI ordered.

April 3, 2023. MRI of the right knee shows a tear of the posterior horn of the medial meniscus. Dr. Anita Patel discussed arthroscopic surgery with John Miller.

May 22, 2023. Dr. Anita Patel performed arthroscopic partial medial meniscectomy of the right knee. No complications.

June 30, 2023. Post-operative visit. John Miller walks without crutches; mild swelling. Referred to physical therapy.

October 12, 2023. John Miller reports knee pain when climbing stairs. Dr. Anita Patel notes permanent restriction: no kneeling or squatting; maximum medical improvement reached.`,
    'physical-therapy.txt': `RIVERSIDE PHYSICAL THERAPY — DISCHARGE SUMMARY
Patient: John Miller
Referring physician: Dr. Anita Patel

John Miller attended 18 sessions of physical therapy for the right knee from July 5, 2023 to September 8, 2023. Range of motion improved from 95 to 125 degrees of flexion. Quadriceps strength 4 of 5. Patient continues home exercises. Discharged September 8, 2023.`,
  },
  'Garcia — rear-end collision': {
    'police-report.txt': `CITY OF RIVERTON POLICE DEPARTMENT
TRAFFIC COLLISION REPORT

Report number: 22-08114
Date: August 2, 2022, 5:40 p.m.
Location: Elm Street at 5th Avenue, Riverton

Narrative. Vehicle 1, a 2019 Honda Civic driven by Maria Garcia, was stopped at a red light on Elm Street. Vehicle 2, a delivery van owned by Swift Parcel Services LLC and driven by Kevin Brooks, failed to stop and struck Vehicle 1 from behind. Kevin Brooks told Officer Sam Lee that he looked down at his route scanner. Maria Garcia complained of neck pain and was taken by ambulance to St. Luke's Hospital.

Citation issued to Kevin Brooks for following too closely.
Reporting officer: Officer Sam Lee, badge 4471.`,
    'er-record.txt': `ST. LUKE'S HOSPITAL — EMERGENCY DEPARTMENT

Patient: Maria Garcia   DOB: 11/19/1985
Date of visit: August 2, 2022

Arrived by ambulance after a rear-end motor vehicle collision. Restrained driver, airbag did not deploy. Complains of neck pain and headache.
Examination: tenderness of the cervical paraspinal muscles; no neurological deficit.
CT of the cervical spine on August 2, 2022: no fracture.
Diagnosis: cervical strain (whiplash); post-traumatic headache.
Discharged with a soft cervical collar, cyclobenzaprine and instructions to see her primary physician.
Physician: Dr. Omar Haddad.`,
    'chiropractic-notes.txt': `HARBOR CHIROPRACTIC CLINIC — TREATMENT NOTES
Patient: Maria Garcia

August 10, 2022. Initial visit with Dr. Leon Wu. Maria Garcia reports neck stiffness and headaches since the collision of August 2, 2022. Cervical range of motion reduced by 40 percent.

September 14, 2022. Maria Garcia improving; headaches twice a week. Cervical adjustment and massage continued.

October 28, 2022. Dr. Leon Wu discharges Maria Garcia from care; residual stiffness in the morning. 24 visits in total.`,
  },
  'Thompson dog bite': {
    'animal-control-report.txt': `COUNTY ANIMAL CONTROL — BITE INCIDENT REPORT

Date of incident: June 18, 2024
Victim: Emily Thompson, age 9
Address of incident: 412 Birchwood Lane, Fairview

Emily Thompson was bitten on the left forearm by a German shepherd named Rex owned by Gary Holt while walking past 412 Birchwood Lane. The dog had jumped a broken section of the backyard fence. Gary Holt had received a written warning about the same dog on April 2, 2024 after it chased a mail carrier. Rex was placed in a ten-day quarantine. Officer Priya Nair.`,
    'pediatric-record.txt': `FAIRVIEW CHILDREN'S CLINIC

Patient: Emily Thompson   DOB: 05/06/2015
Parent: Laura Thompson

June 18, 2024. Emily Thompson seen by Dr. Marcus Bell for a dog bite to the left forearm: two puncture wounds and a 3 cm laceration. Wound irrigated and closed with five sutures. Tetanus up to date. Amoxicillin-clavulanate prescribed.

June 28, 2024. Sutures removed by Dr. Marcus Bell. Wound healing; early scar. Laura Thompson reports Emily Thompson has nightmares and fears dogs; referral to a child psychologist.

September 9, 2024. Scar on the left forearm 3 cm, raised and pink. Dr. Marcus Bell recommends scar review in one year.`,
  },
};
